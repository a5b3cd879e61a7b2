// A plain object (no -G) linked with -g: kernels that call a device
// function that is not inlined.
__device__ __noinline__ int twice(int x) { return x * 2; }
__global__ void early(int* p) {
  if (p[0]) return;
  p[1] = twice(p[2]);
}
__global__ void both(int* p) { p[threadIdx.x] = twice(p[threadIdx.x]) - twice(p[0]); }
