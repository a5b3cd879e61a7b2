__global__ void zero(int* p) { cudaMemsetAsync(p, 0, 64, 0); }
