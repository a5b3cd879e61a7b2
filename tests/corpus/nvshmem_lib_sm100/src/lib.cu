// Device code as NVSHMEM's libnvshmem_device.a (ptxas 13.0) has it; build.sh
// edits the cubin as that ptxas writes it. Constants are read before the
// calls (CALL.ABS.NOINC, whose capsule records ptxas wraps in 0xd1/0x51).
__constant__ int lib_table[64];

static __device__ __noinline__ int lib_local(int x, int *p)
{
    return p[x & 15] * 3 + x;
}

__device__ __noinline__ int lib_switch(int x, int *p)
{
    int r;
    switch (x) {
    case 0: r = p[1] * 3; break;
    case 1: r = p[2] + 7; break;
    case 2: r = p[3] ^ 0x55; break;
    case 3: r = p[4] - 9; break;
    case 4: r = p[5] << 2; break;
    case 5: r = p[6] | 0x100; break;
    default: r = x;
    }
    return r;
}

__device__ __noinline__ int lib_fence(int x, int *p)
{
    int v = lib_switch(x + lib_table[5], p);
    return v + lib_local(x, p);
}
