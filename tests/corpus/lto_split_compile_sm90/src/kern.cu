// A kernel that calls a device function defined in another file: with
// -dlto, NVVM inlines it across the files.
__device__ int scale(int x);
__global__ void kScale(int *p) { p[threadIdx.x] = scale(p[threadIdx.x]); }
void launch(int *p) { kScale<<<1, 32>>>(p); }
