// Calls sysf() but launches nothing from host code: its kernel lists are
// empty, and the system library member's list (kSysStatic) does not by
// itself limit the kernels kept, so k_device_only stays.
extern __device__ int sysf(int x);
__global__ void k_device_only(int *p) { p[0] = sysf(p[1]); }
