__global__ void k(float *o) { o[threadIdx.x] *= 2.f; }
