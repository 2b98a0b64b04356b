#include "parsers/am_start.h"
