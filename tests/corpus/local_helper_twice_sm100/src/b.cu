__global__ void k_b(float *p, float d) { p[threadIdx.x] = 5.0f / (p[threadIdx.x] * d); }
