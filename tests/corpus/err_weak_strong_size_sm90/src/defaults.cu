// A weak default table of another size: nvlink refuses the pair, in
// either order.
__device__ __attribute__((weak)) float coeffs[8] = {1.0f};
__global__ void apply_default(float *o) { o[threadIdx.x] += coeffs[threadIdx.x & 7]; }
