__global__ void clear(float* o) { o[threadIdx.x] = 0.0f; }
