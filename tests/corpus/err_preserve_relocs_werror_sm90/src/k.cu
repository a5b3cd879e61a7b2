__device__ int ping(int);
__global__ void kA(int *o) { o[0] = ping(o[1]); }
