__device__ int ext_fn(int x) { return x * 3 + 1; }
__global__ void kb(int *p) { p[threadIdx.x] = ext_fn(p[0]); }
