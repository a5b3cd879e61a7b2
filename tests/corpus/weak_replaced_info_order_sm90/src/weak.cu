// A weak (inline) wf with no relocations in its code, called by kw.
__device__ __noinline__ inline int wf(int x) { return x + 1; }
__global__ void kw(int *o) { o[0] = wf(o[1]); }
