#include "parsers/looper_stats.h"

int main() { return 0; }
