# throughput, throughput (Gbit/s), ipv4: each zone cell's mean run by run, its 95 % confidence interval as a band (none where a run has one ok trial), circled where the mean lies beyond the CI of the cell's first run by more than 5.0 %; the axis starts at zero; the key is outside the plot
# trend chart of scenario throughput, written by netsurvey trend; edit and run
#   gnuplot trend-throughput.gp
set encoding utf8
set terminal svg size 800,450 noenhanced font "sans,15" background "white"
set output "trend-throughput.svg"
set title 'throughput: throughput per zone cell and run (Gbit/s)'
set grid ytics lc rgb "#dddddd"
set border 3
set tics nomirror
set ylabel 'throughput (Gbit/s)'
set xrange [-0.5:3.5]
set style fill transparent solid 0.15 noborder
set key outside right samplen 2
set xtics rotate by -30 ('#1 20261101T150000Z-t001' 0, '#2 20261108T150000Z-t002' 1, '#3 20261115T150000Z-t003' 2, '#5 20261122T150000Z-t004' 3)
set yrange [0:11.4339]
plot "trend-throughput.dat" index 0 using 1:3:4 with filledcurves lc 1 notitle, \
     "" index 0 using 1:2 with linespoints lc 1 pt 7 ps 0.6 title '1 → 2', \
     "" index 0 using 1:($5 > 0 ? $2 : NaN) with points pt 6 ps 2 lc rgb "#b42318" notitle, \
     "trend-throughput.dat" index 1 using 1:3:4 with filledcurves lc 2 notitle, \
     "" index 1 using 1:2 with linespoints lc 2 pt 7 ps 0.6 title '2 → 1', \
     "" index 1 using 1:($5 > 0 ? $2 : NaN) with points pt 6 ps 2 lc rgb "#b42318" notitle
