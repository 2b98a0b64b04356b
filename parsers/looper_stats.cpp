#include "parsers/looper_stats.h"
