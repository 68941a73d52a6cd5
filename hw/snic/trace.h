#include "trace/trace-hw_snic.h"
