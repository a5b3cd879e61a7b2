// A device-side cudaMemcpyAsync pulls libcudadevrt's __cudaCDP2MemcpyAsync,
// whose code has a relocation (classic R_CUDA_ABS32_32, Mercury 0x10003)
// against the LOCAL undefined `.nv.ptx.const0.size`: nvlink resolves and
// drops both, and the Mercury symbol keeps all ones like the classic one.
// The member's static kernels (memset_3d_device/memcpy_3d_device) list
// their `.nv.constant0.<k>` in the reverse of their symbols' order; on
// sm_100 nvlink makes each bank with its kernel (section and symbol order).
// Linked with -r: a final link also recomputes those call-free kernels'
// control bits, which culdb does not do.
__global__ void k_copy(int *dst, const int *src, int n)
{
    cudaMemcpyAsync(dst, src, n * sizeof(int), cudaMemcpyDeviceToDevice, 0);
}
