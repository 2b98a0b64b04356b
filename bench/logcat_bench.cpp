#include "parsers/logcat.h"

int main() { return 0; }
