#include "parsers/getprop.h"
