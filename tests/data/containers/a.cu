extern __device__ int g(int);
__device__ int counter;
__global__ void ka(int *p) { p[threadIdx.x] = g(threadIdx.x) + counter; }
