// Built without -G: kernels that call a device function that is not
// inlined, one of them twice, with an early exit.
__device__ __noinline__ int triple(int x) { return x * 3; }
__global__ void scale(int* d) {
  if (d[0] < 0) return;
  d[1] = triple(d[2]);
}
__global__ void twice(int* d) { d[threadIdx.x] = triple(d[threadIdx.x]) + triple(d[0]); }
