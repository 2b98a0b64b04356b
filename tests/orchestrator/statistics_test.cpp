#include "orchestrator/statistics.h"
