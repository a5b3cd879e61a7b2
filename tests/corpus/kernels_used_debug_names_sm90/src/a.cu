// -G code with -kernels-used naming `boss` alone: a -g link removes
// nothing, and every kernel keeps a kernel's section names (w1 too).
__device__ __noinline__ int wh(int x) { return x | 0x100; }
__global__ void w1(int *p) { p[threadIdx.x] = wh(threadIdx.x); }
__global__ void boss(void **out) { out[0] = (void *)w1; }
