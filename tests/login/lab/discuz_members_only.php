<?php
// Makes one Discuz! X3.5 forum members-only as ACP > Forums > Edit > Permissions does when
// only the member groups may view it: forum_forumfield.viewperm lists the groups that may
// (tab-separated; guests are group 7, not in it), then the forums cache rebuilt.
// usage: runuser -u www-data -- php discuz_members_only.php DISCUZ_ROOT FID
define('ACC_ROOT', rtrim($argv[1], '/'));
define('ACC_FID', (int)$argv[2]);
chdir(ACC_ROOT);
$_SERVER['REMOTE_ADDR'] = '127.0.0.1';
$_SERVER['REQUEST_METHOD'] = 'GET';
$_SERVER['HTTP_HOST'] = '127.0.0.1:' . (getenv('DISCUZ_PORT') ?: '18089');
$_SERVER['SERVER_PORT'] = getenv('DISCUZ_PORT') ?: '18089';
$_SERVER['SCRIPT_FILENAME'] = ACC_ROOT . '/forum.php';
$_SERVER['DOCUMENT_ROOT'] = ACC_ROOT;
$_SERVER['HTTP_USER_AGENT'] = 'Mozilla/5.0 (X11; Linux x86_64) acceptance-seed';
$_SERVER['SCRIPT_NAME'] = $_SERVER['PHP_SELF'] = '/forum.php';
$_SERVER['REQUEST_URI'] = '/forum.php';
define('APPTYPEID', 2);
define('CURSCRIPT', 'forum');
require ACC_ROOT . '/source/class/class_core.php';
$discuz = C::app();
$discuz->init_cron = false;
$discuz->init();
require_once libfile('function/cache');
$groups = [1, 2, 3];  // administrators, super moderators, moderators
foreach (C::t('common_usergroup')->fetch_all_by_type('member') as $group) {
    $groups[] = (int)$group['groupid'];
}
C::t('forum_forumfield')->update(ACC_FID, ['viewperm' => "\t" . implode("\t", $groups) . "\t"]);
updatecache('forums');
fwrite(STDERR, "[discuz] forum " . ACC_FID . ": view for groups " . implode(',', $groups) . "\n");
