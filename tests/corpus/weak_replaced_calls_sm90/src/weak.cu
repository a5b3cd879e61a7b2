// A weak (inline) wf calling a static helper h and a global g.
__device__ __noinline__ int g(int x);
static __device__ __noinline__ int h(int x) { return x / 7 + x % 13; }
__device__ __noinline__ inline int wf(int x) { return h(x) + g(x) + 1; }
__global__ void kw(int *o) { o[0] = wf(o[1]); }
