#include "parsers/proc_stat.h"
