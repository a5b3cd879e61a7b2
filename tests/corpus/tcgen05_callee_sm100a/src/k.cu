// The only kernel allocates and frees tensor memory through another object.
#include <cstdint>
__device__ void grab_columns(uint32_t* where);
__device__ void give_back(uint32_t taddr);
__global__ void use_tmem(uint32_t* out) {
  __shared__ uint32_t base;
  if (threadIdx.x < 32) grab_columns(&base);
  __syncthreads();
  out[blockIdx.x] = base;
  if (threadIdx.x < 32) give_back(base);
}
