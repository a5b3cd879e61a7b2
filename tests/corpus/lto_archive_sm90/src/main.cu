// Calls a function of the LTO library.
__device__ int twice(int x);
__global__ void kMain(int *p) { p[threadIdx.x] = twice(p[0]); }
void launch(int *p) { kMain<<<1, 32>>>(p); }
