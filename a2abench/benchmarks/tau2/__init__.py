"""tau2-bench (airline, retail, mock, telecom), reimplemented natively."""
