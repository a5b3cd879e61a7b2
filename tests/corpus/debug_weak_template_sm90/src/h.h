template<int N> __device__ __noinline__ int cmp(int a, int b) { return a < b ? a + N : b - N; }
