// compute.c built as C++: the standard header and a C program written against it compile
// unchanged as C++ too.
#include "compute.c"
