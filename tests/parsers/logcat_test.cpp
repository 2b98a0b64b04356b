#include "parsers/logcat.h"
