#include "parsers/dumpsys_thermal.h"
