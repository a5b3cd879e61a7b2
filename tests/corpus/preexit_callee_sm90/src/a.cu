// ka reaches trig (b.cu), which uses PREEXIT; kb calls nothing.
extern __device__ int trig(int x);
__device__ __noinline__ int mid(int x) { return trig(x) + 1; }
__global__ void ka(int *p) { p[threadIdx.x] = mid(p[threadIdx.x]); }
__global__ void kb(int *p) { p[threadIdx.x] += 2; }
