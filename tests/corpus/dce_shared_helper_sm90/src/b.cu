// An unused device function that divides too: its object has its own copy
// of the local helper, which nvlink merges with a.cubin's; removing
// scale() must not take the kernel's helper with it.
__device__ float scale(float x) { return 3.0f / x; }
