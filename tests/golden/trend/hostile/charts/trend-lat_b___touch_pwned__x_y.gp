# lat<b>'`touch pwned`@x|y, mean RTT (µs), ipv4: each zone cell's mean run by run, its 95 % confidence interval as a band (none where a run has one ok trial), circled where the mean lies beyond the CI of the cell's first run by more than 5.0 %; the axis starts at zero; the key is outside the plot
# trend chart of scenario lat_b___touch_pwned__x_y, written by netsurvey trend; edit and run
#   gnuplot trend-lat_b___touch_pwned__x_y.gp
set encoding utf8
set terminal svg size 800,450 noenhanced font "sans,15" background "white"
set output "trend-lat_b___touch_pwned__x_y.svg"
set title 'lat<b>''`touch pwned`@x|y: mean RTT per zone cell and run (µs)'
set grid ytics lc rgb "#dddddd"
set border 3
set tics nomirror
set ylabel 'mean RTT (µs)'
set xrange [-0.5:1.5]
set style fill transparent solid 0.15 noborder
set key outside right samplen 2
set xtics rotate by -30 ('#1 20261101T150000Z-''`id`|<x>,"y"' 0, '#2 20261102T150000Z-<b>&amp;''@z' 1)
set yrange [0:273.208]
plot "trend-lat_b___touch_pwned__x_y.dat" index 0 using 1:3:4 with filledcurves lc 1 notitle, \
     "" index 0 using 1:2 with linespoints lc 1 pt 7 ps 0.6 title '"q,1" <z2> → a&b', \
     "" index 0 using 1:($5 > 0 ? $2 : NaN) with points pt 6 ps 2 lc rgb "#b42318" notitle, \
     "trend-lat_b___touch_pwned__x_y.dat" index 1 using 1:3:4 with filledcurves lc 2 notitle, \
     "" index 1 using 1:2 with linespoints lc 2 pt 7 ps 0.6 title 'a&b → "q,1" <z2>', \
     "" index 1 using 1:($5 > 0 ? $2 : NaN) with points pt 6 ps 2 lc rgb "#b42318" notitle
