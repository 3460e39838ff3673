"""Front ends that present an analysis: the terminal report and the JSON form."""
