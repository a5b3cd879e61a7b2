// Kernels with no named barrier of their own.
__device__ int counter;
__global__ void tick() { counter++; }
__global__ void tock(int* o) { o[threadIdx.x] = counter; }
