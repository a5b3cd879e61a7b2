__device__ float scale(float x, float k);
__global__ void apply(float *v, float k) { v[threadIdx.x] = scale(v[threadIdx.x], k); }
