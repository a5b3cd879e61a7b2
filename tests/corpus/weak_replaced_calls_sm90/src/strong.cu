__device__ __noinline__ int g(int x) { return x * 5; }
__device__ __noinline__ int wf(int x) { return x / 7 + x % 13 + x / 11; }
__global__ void ks(int *o) { o[1] = wf(o[2]); }
