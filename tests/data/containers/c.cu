__device__ __noinline__ int h(int x) { return x * 5 + 2; }
__global__ void kc(int *p) { p[threadIdx.x] = h(p[threadIdx.x]); }
