#!/usr/bin/perl
# reference.pl MMTESTS-CHECKOUT VERSION CASES.json OUTDIR
#
# Prints each case of CASES.json whose version is VERSION with mmtests' own compare-mmtests.pl
# (--from-json), and writes what it printed to OUTDIR/NAME.txt. MMTESTS-CHECKOUT is a copy of
# mmtests at the commit bench/stat's tests name for VERSION (2022: b5f04c23ee0e, 2026:
# 638401e07e70). The driver adds, in a scratch directory, one extraction module (2022, and
# the 2026 Variabletime cases) or one shellpack configuration (2026) per case that says which
# summary kind, preferred direction and precision the case has; the statistics, the comparison
# and the printing are mmtests' own. The shellpack directories are made inside the checkout and
# removed after each case. mmtests asks R for its quantiles, so R must be installed; mmtests
# also needs the Perl modules YAML::PP, File::Which, File::Slurp and Cpanel::JSON::XS (on
# Debian: r-base-core libyaml-pp-perl libfile-which-perl libfile-slurp-perl
# libcpanel-json-xs-perl).
use strict;
use warnings;
use File::Temp qw(tempdir);
use File::Path qw(make_path remove_tree);
use JSON::PP;

my ($mmtests, $version, $casesFile, $outdir) = @ARGV;
die "usage: reference.pl MMTESTS-CHECKOUT VERSION CASES.json OUTDIR\n" unless defined $outdir;
open(my $fh, '<', $casesFile) or die "$casesFile: $!";
my $cases = decode_json(do { local $/; <$fh> });
close $fh;
my $scratch = tempdir(CLEANUP => 1);
make_path("$scratch/lib/MMTests", "$scratch/lib/List", $outdir);

# mmtests 2022's Stat.pm imports List::BinarySearch for calc_samples, which no case uses; Debian
# does not package it, so a stand-in that refuses to be called takes its place.
open(my $lb, '>', "$scratch/lib/List/BinarySearch.pm") or die;
print $lb "package List::BinarySearch;\nuse Exporter 'import';\nour \@EXPORT_OK = ('binsearch_range');\n",
	"sub binsearch_range(&\$\$\\\@) { die 'binsearch_range: not expected' }\n1;\n";
close $lb;

my %summaryModule = (
	multiops => "SummariseMultiops", variabletime => "SummariseVariabletime",
	singleops => "SummariseSingleops",
);
my %yamlKind = (
	multiops => "Multiops", normalisedops => "Normalisedops",
	normalisedleftskewops => "NormalisedLeftSkewops", singleops => "Singleops",
);
my $n = 0;
for my $c (@$cases) {
	next unless $c->{version} == $version;
	$n++;
	my $bench = "schedkitcase$n";
	my $higher = $c->{better} eq "higher";
	my $precision = $c->{precision} // 2;
	my $module = "MMTests/Extract" . ucfirst($bench) . ".pm";
	if ($version == 2022 || $c->{summary} eq "variabletime") {
		my $base = $summaryModule{$c->{summary}} or die "$c->{name}: no $version module for $c->{summary}";
		my $direction = $version == 2022
			? "\$self->{_DataType} = DataTypes::" . ($higher ? "DATA_OPS_PER_SECOND" : "DATA_TIME_SECONDS") . ";"
			: "\$self->{_PreferredVal} = \"" . ($higher ? "Higher" : "Lower") . "\";";
		open(my $m, '>', "$scratch/lib/$module") or die;
		print $m "package MMTests::Extract" . ucfirst($bench) . ";\nuse MMTests::$base;\nuse MMTests::DataTypes;\n",
			"our \@ISA = qw(MMTests::$base);\nsub initialise() {\n\tmy (\$self, \$subHeading) = \@_;\n",
			"\t$direction\n\t\$self->{_Precision} = $precision;\n",
			"\t\$self->SUPER::initialise(\$subHeading);\n}\n1;\n";
		close $m;
	} else {
		my $kind = $yamlKind{$c->{summary}} or die "$c->{name}: no shellpack kind $c->{summary}";
		my $dir = "$mmtests/shellpack_src/src/$bench";
		make_path($dir);
		open(my $y, '>', "$dir/shellpack.yaml") or die;
		print $y "summarise: $kind\nDecimalPlaces: $precision\n";
		print $y "preferhigher: true\n" if $higher;
		close $y;
		open(my $p, '>', "$dir/parse-results") or die;
		print $p "#!/bin/sh\nexit 1\n";
		close $p;
		chmod 0755, "$dir/parse-results";
	}
	# One module per run, as compare-mmtests.pl --from-json reads them: every sample of an
	# operation in one iteration, numbered from 1.
	my @modules;
	for my $r (0 .. $#{$c->{runs}}) {
		my %data;
		for my $op (@{$c->{ops}}) {
			my @values = map { $_ + 0 } @{$op->{samples}[$r]};
			$data{$op->{name}} = [{ Values => \@values, SampleNrs => [1 .. scalar @values] }];
		}
		push @modules, { _ModuleName => "Extract$bench", _TestName => $c->{runs}[$r], _ResultData => \%data };
	}
	my $input = "$scratch/$c->{name}.json";
	open(my $j, '>', $input) or die;
	print $j JSON::PP->new->canonical->encode(\@modules);
	close $j;
	my @args = ("--from-json", $input);
	push @args, "--print-significance" if $c->{print_significance};
	push @args, "--no-compare" if $c->{no_compare};
	local $ENV{PERL5LIB} = "$scratch/lib";
	open(my $out, '-|', "perl", "$mmtests/bin/compare-mmtests.pl", @args) or die "compare-mmtests.pl: $!";
	my $table = do { local $/; <$out> };
	close $out or die "$c->{name}: compare-mmtests.pl failed ($?)\n";
	open(my $o, '>', "$outdir/$c->{name}.txt") or die;
	print $o $table;
	close $o;
	remove_tree("$mmtests/shellpack_src/src/$bench") if -d "$mmtests/shellpack_src/src/$bench";
}
print STDERR "$n cases of mmtests $version\n";
