// A strong table of four coefficients.
__device__ float coeffs[4] = {0.5f, 0.25f, 0.125f, 0.0625f};
__global__ void apply(float *o) { o[threadIdx.x] *= coeffs[threadIdx.x & 3]; }
