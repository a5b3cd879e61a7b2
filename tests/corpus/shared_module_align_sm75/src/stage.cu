// A device function with its own shared array, called by a kernel here and
// by one in another file: the array is reached by two kernels.
#ifndef STAGE_ALIGN
#define STAGE_ALIGN 4
#endif
__device__ __noinline__ float stage(float v) {
  __shared__ __align__(STAGE_ALIGN) float tile[64];
  tile[threadIdx.x % 64] = v;
  __syncthreads();
  return tile[(threadIdx.x + 1) % 64];
}
__global__ void first_user(float* o) { o[threadIdx.x] = stage(o[0]); }
