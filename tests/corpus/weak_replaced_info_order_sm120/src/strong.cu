// The strong wf that replaces weak.o's, called by ks.
__device__ __noinline__ int wf(int x) { return x * 3; }
__global__ void ks(int *o) { o[1] = wf(o[2]); }
