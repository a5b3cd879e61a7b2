// A weak (inline) wf reading a __device__ array: its code has RELA relocations.
__device__ int wy[4];
__device__ __noinline__ inline int wf(int x) { return x + wy[x & 3]; }
__global__ void kw(int *o) { o[0] = wf(o[1]); }
