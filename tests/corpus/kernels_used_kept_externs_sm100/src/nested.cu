// The launched kernels, each with a helper.
extern __global__ void kc(int *p);
__device__ __noinline__ int bh(int x) { return x + 11; }
__global__ void kb(int *p, int d) { p[0] = bh(d); if (d > 0) kc<<<1, 32>>>(p); }
__device__ __noinline__ int ch(int x) { return x * x; }
__global__ void kc(int *p) { p[threadIdx.x] += ch(threadIdx.x); }
