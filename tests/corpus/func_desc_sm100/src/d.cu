// A kernel's address taken in device code: the Mercury FUNC_DESC32 LO/HI
// relocations (0x1003e, 0x1003f) are written as 0x10005/0x10006 when kept.
__global__ void child(int *p) { p[0] = 1; }
__global__ void k_addr(void **out) { *out = (void *)child; }
