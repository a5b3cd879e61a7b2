// Built without -dlto: a plain relocatable cubin, so the link is partial LTO.
__device__ __noinline__ int scale(int x) { return 5 * x + 2; }
__global__ void kPlain(int *p) { p[0] = scale(p[1]); }
