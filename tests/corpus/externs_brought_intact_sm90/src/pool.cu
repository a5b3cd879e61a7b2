// One kernel: its own EIATTR_EXTERNS names `malloc`; the helper it calls
// brings `free`. nvlink drops the kernel's record and writes the whole
// list (`free`, `malloc`: reading order) in a new record at the end.
__device__ __noinline__ void release(void* p) { free(p); }
__global__ void grab(int** out)
{
    int* p = (int*)malloc(8);
    out[0] = p;
    release(p);
}
