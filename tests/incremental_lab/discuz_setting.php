<?php
// Sets one Discuz! setting as the Admin CP does (common_setting + updatecache('setting')), e.g. the
// guest page cache of the index that Discuz's own optimizer recommends: cacheindexlife 900.
//   usage (as www-data, with the site's PHP):  php discuz_setting.php DISCUZ_ROOT KEY VALUE
define('ACC_ROOT', rtrim($argv[1], '/'));
define('ACC_KEY', $argv[2]);
define('ACC_VALUE', $argv[3]);
chdir(ACC_ROOT);
$_SERVER['REMOTE_ADDR'] = '127.0.0.1';
$_SERVER['REQUEST_METHOD'] = 'GET';
$_SERVER['HTTP_HOST'] = '127.0.0.1:' . (getenv('DISCUZ_PORT') ?: '18089');
$_SERVER['SERVER_PORT'] = getenv('DISCUZ_PORT') ?: '18089';
$_SERVER['SCRIPT_FILENAME'] = ACC_ROOT . '/forum.php';
$_SERVER['DOCUMENT_ROOT'] = ACC_ROOT;
$_SERVER['HTTP_USER_AGENT'] = 'Mozilla/5.0 (X11; Linux x86_64) incremental-lab';
$_SERVER['SCRIPT_NAME'] = $_SERVER['PHP_SELF'] = '/forum.php';
$_SERVER['REQUEST_URI'] = '/forum.php';
define('APPTYPEID', 2);
define('CURSCRIPT', 'forum');
require ACC_ROOT . '/source/class/class_core.php';
$discuz = C::app();
$discuz->init_cron = false;
$discuz->init();
require_once libfile('function/cache');
C::t('common_setting')->update_batch([ACC_KEY => ACC_VALUE]);
updatecache('setting');
echo json_encode([ACC_KEY => C::t('common_setting')->fetch_setting(ACC_KEY)]), "\n";
