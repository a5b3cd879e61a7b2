// Host code only: the object has no device code and no .nvHR* lists, so
// nvlink cannot know what it launches and keeps every kernel.
void launch(float *p);
int main() { launch(nullptr); return 0; }
