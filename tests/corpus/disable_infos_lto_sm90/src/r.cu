// ping and pong recurse across two files: the stack size of kA cannot be
// statically determined, and nvlink warns.
__device__ int pong(int);
__device__ int ping(int n) { return n <= 1 ? 1 : n * pong(n - 1); }
