// A file with no shared memory and no extern array.
__global__ void plain(float* o) { o[threadIdx.x] = 2.f; }
