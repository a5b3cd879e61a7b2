__global__ void fill(float* o) { o[threadIdx.x] = 3.0f; }
