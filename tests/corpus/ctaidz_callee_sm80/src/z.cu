// A device function in another object reads blockIdx.z: the kernels that
// call it inherit its EIATTR_CTAIDZ_USED (nvlink appends the record), as
// kernels reaching NVSHMEM's device library do.
extern __device__ int plane(int x);
__global__ void k_plane(int *p) { p[threadIdx.x] = plane(p[0]); }
__global__ void k_flat(int *p) { p[threadIdx.x] = 1; }
