#include "parsers/proc_stat.h"

int main() { return 0; }
