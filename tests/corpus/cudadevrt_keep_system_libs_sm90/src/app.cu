// Launches nothing from host code: its kernel lists are empty. Linked with
// -keep-system-libraries, the system library's member is linked whole, but
// its lists (kSysStatic) still limit nothing: every kernel stays.
__global__ void k_app(int *p) { p[0] = 7; }
