// Definitions: a device array and a managed counter.
__device__ float coeffs[4] = {1.f, 2.f, 3.f, 4.f};
__managed__ int hits;
__global__ void fill(float* o) { o[threadIdx.x] = coeffs[threadIdx.x & 3]; hits++; }
