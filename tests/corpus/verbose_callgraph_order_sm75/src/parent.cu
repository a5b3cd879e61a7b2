// A kernel launching two kernels of child.cu and itself. ptxas lists the
// children (undefined here) before `parent` in this object's symbol table;
// nvlink still numbers `parent` first: a function counts where its code is.
__global__ void child_a(int* p);
__global__ void child_b(int* p);
__global__ void parent(int* p, int depth)
{
    int v = __shfl_sync(0xffffffff, p[threadIdx.x], 0);
    if (__ballot_sync(0xffffffff, v > 0) && threadIdx.x == 0) {
        child_b<<<1, 1>>>(p);
        child_a<<<1, 1>>>(p + 1);
        if (depth > 0) parent<<<1, 1>>>(p + 2, depth - 1);
    }
}
