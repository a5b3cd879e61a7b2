// -G, dynamic parallelism: in a -g link nvlink finalizes libcudadevrt's
// kernels (memset_3d_device, memcpy_3d_device) again as debug code, other
// code and capsules than the library holds.
__global__ void child(int *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] *= 3;
}

__global__ void parent(int *p, int n) {
    if (threadIdx.x == 0 && blockIdx.x == 0) child<<<(n + 63) / 64, 64>>>(p, n);
}
